
    __kernel void k(__global const float *F, __global const int *I, __global int *oi, __global float *of,
                    __global uint *ou, __global long *ol) {
        size_t i = get_global_id(0);
        int t = F[i];                  /* truncation toward zero */
        oi[i] = t;
        float f = I[i];                /* round to nearest even */
        of[i] = f;
        float4 v = 2;                  /* scalar widened to every element */
        float4 w = v * F[i] + 1;       /* scalar operands widened; int 1 -> float */
        vstore4(w, i, of + 64);
        ou[i] = (uint)(I[i] < 0u);     /* usual arithmetic conversions: int -> uint */
        ol[i] = (long)I[i] * 3000000000L + (char)(I[i]);   /* cast to char wraps */
    }