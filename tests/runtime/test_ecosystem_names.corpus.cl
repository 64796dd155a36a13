
kernel void _private_name(global int *out, int a, float b) { out[get_global_id(0)] = a + (int) b; }
kernel void plain(global int *out) { out[get_global_id(0)] = 7; }
