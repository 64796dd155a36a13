__kernel void k(__global int *out) {
    atomic_add(&out[get_global_id(0) % 32], 1);
}
