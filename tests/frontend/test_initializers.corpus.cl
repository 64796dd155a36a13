typedef struct { float4 v; int n; } T;
    kernel void k(global int *o) {
      long4 data[] = {0, 1, 2};
      T t = {1.5f, 2};
      o[0] = sizeof(data) / sizeof(data[0]);
      for (int i = 0; i < 3; i++) o[1 + i] = (int)(data[i].x + data[i].y + data[i].z + data[i].w);
      o[4] = (int)(2 * (t.v.x + t.v.y + t.v.z + t.v.w)); o[5] = t.n;
    }