constant float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
    constant int offsets[2][3] = {{-2, -1, 0}, {1, 2}};
    __attribute__((noinline)) float tap(int k) { return weights[k] * 10.0f; }
    kernel void blur(global const float *in, global float *out, int n) {
      int i = get_global_id(0);
      float s = 0.0f;
      for (int k = 0; k < 5; k++) {
        int j = clamp(i + offsets[k / 3][k % 3], 0, n - 1);
        s += in[j] * weights[k];
      }
      out[i] = s + tap(i % 5) + weights[2];
    }