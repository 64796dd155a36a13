
__kernel void p(__global const float *X) {
    size_t i = get_global_id(0);
    float4 f = vload4(i, X);
    int2 v = (int2)((int)i, -(int)i);
    printf("item %u: %d %5.2f %s|", (uint)i, (int)i * 10, X[i], "ok");
    printf("v4f=%v4f|", f);
    printf("v2hlx=%#v2hlx|", (uint2)(255u, 16u * (uint)i));
    printf("v3hhd=%v3hhd|", (char3)(-1, 2, (char)i));
    printf("v2hd=%v2hd|", (short2)(-300, 7));
    printf("v2ld=%v2ld|", (long2)(-5000000000L, (long)i));
    printf("v2i=%v2hli %%|", v);
    printf("c=%c e=%.3e g=%g x=%08X o=%o\n", 'A' + (int)i, 1234.5f, 0.5, 48879u, 8u);
}