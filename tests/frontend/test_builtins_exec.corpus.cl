__kernel void k(__global float *out, __global half *h) {
      vstore_half4((float4)(1.5f, -2.0f, 0.25f, 65504.0f), 0, h);
      float4 back = vload_half4(0, h);
      vstorea_half3((float3)(3.0f, 4.0f, 5.0f), 1, h);
      float3 b3 = vloada_half3(1, h);
      int4 v = (int4)(10, 20, 30, 40);
      int4 s = shuffle(v, (uint4)(3, 2, 1, 0));
      int8 t = shuffle2(v, v * 2, (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
      out[0] = back.x; out[1] = back.y; out[2] = back.z; out[3] = back.w;
      out[4] = b3.x + b3.y + b3.z; out[5] = h[4];
      out[6] = s.x * 1000 + s.w; out[7] = t.s1 + t.s6 * 1000;
    }