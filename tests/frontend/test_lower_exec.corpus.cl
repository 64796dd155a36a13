__kernel void k(__global int *out) {
      int i = get_global_id(0);
      int4 v = (int4)(10, 20, 30, 40);
      v.wzyx[i & 3] = 7;
      out[i] = v.x * 1000 + v.y * 100 + v.z * 10 + v.w + v.zw[1] * 100000;
    }