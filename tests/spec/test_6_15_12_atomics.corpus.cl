
    __kernel void k(volatile __global float *F, __global float *old) {
        size_t i = get_global_id(0);
        old[i] = atomic_xchg(&F[0], (float)i + 0.5f);
        __local float L;
        if (get_local_id(0) == 0) L = -1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        float o = atomic_xchg(&L, 2.0f);  // atom_xchg has no float overload: clang finds it ambiguous
        if (o != -1.0f && o != 2.0f) F[1] = o;
    }