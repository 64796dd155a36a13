
    __kernel void k(__global const float8 *a, __global const uint *idx, __global float *out,
                    __global float8 *sh) {
        size_t i = get_global_id(0);
        float8 v = a[i];
        float tmp[8];
        vstore8(v, 0, tmp);
        out[i] = tmp[idx[i] % 8];
        sh[i] = shuffle(v, (uint8)(7, 6, 5, 4, 3, 2, 1, 0)) + shuffle2(v, v * 10.0f, (uint8)(0, 8, 1, 9, 2, 10, 3, 11));
    }