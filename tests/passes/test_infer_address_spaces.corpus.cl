
float *bump(float *p) {
    p[0] += 1.0f; p[1] += 2.0f; p[2] += 3.0f; p[3] += 4.0f; p[4] += 5.0f; p[5] += 6.0f;
    p[6] += 7.0f; p[7] += 8.0f; p[8] += 9.0f; p[9] += 10.0f; p[10] += 11.0f; p[11] += 12.0f;
    return p + 1;
}
kernel void k(global float *a) {
    int i = get_global_id(0) * 16;
    float *q = bump(a + i);
    *q += 100.0f;
    q = bump(q);
    *bump(q) += 1000.0f;
}
