// π
__kernel void k() {}
�