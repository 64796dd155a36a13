kernel void k(global float *o) {
        char3 c = as_char3(0x04030201);
        int i = as_int((char3)(5, 6, 7));
        o[0] = c.x; o[1] = c.y; o[2] = c.z; o[3] = i & 0xffffff;
    }