kernel void k(global float *out, int n) {
        int gid = get_global_id(0);
        int grp = get_group_id(0);
        float acc = 0;
        for (int i = 0; i < n; i++) acc += i * grp;
        if (gid < n) out[gid] = acc;
    }