
import numpy as np
import oclpy as cl
SRC = '''__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    out[i + OFFSET] = a[i];
}
'''
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
a = np.arange(64, dtype=np.int32)
da = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
dout = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
prg = cl.Program(ctx, SRC.replace("OFFSET", sys.argv[1])).build()
prg.k(q, (64,), (32,), da, dout)
q.finish()
print("device", ctx.devices[0].kind)
