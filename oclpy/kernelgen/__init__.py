"""What the kernel generators share, built on the public host API (`import oclpy as cl`).

- `dtypes`: the dtype registry (numpy dtype <-> OpenCL C type name);
- `arguments`: PyOpenCL's argument strings parsed into VectorArg/ScalarArg;
- `programs`: building generated kernels, kept per context (`build_kernel`,
  `ContextCache`);
- `launch`: the `DeviceArray` protocol, argument values, wait lists, queues
  and launch sizes;
- `reduce`: the two-stage map-reduce under ReductionKernel and the array
  reductions.

`oclpy.tools` offers the dtype and argument names under PyOpenCL's names.
"""
