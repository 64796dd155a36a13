
void add_to(float *p, float v) { *p += v; }
kernel void k(global float *a, local float *tmp, int n) {
    int i = get_global_id(0);
    float *q = a + i;
    tmp[get_local_id(0)] = *q;
    float *b = a + 1;
    float *p = n > 0 ? q : b;
    add_to(p, 1.0f);
    if (i < n) add_to(&tmp[0], 2.0f);
}
