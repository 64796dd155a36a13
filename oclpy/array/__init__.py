"""Device arrays with NumPy-like arithmetic: the API of `pyopencl.array`.

`core` holds the `Array` class and the constructors; `views` the shape and
stride arithmetic; `arith` the elementwise kernels behind the operators;
`reductions` sum, dot, min, max and their subset forms; `functions` the module
functions (selection, stacking, differences, cumsum); `complex` the complex
types in generated kernels.
"""

from .core import *  # noqa: F401,F403 - the public names of pyopencl.array
from .core import __all__  # noqa: F401
