kernel void k(global const char *in, global int *out, char u) {
      int i = get_global_id(0);
      int r;
      switch (in[i]) { case -1: r = 10; break; case 3: r = 20; break; case -128: r = 30; break; default: r = 0; }
      switch (u) { case -2: r += 100; break; default: r += 200; }
      out[i] = r;
    }