__kernel void k(__global const uchar *data, __global uint *hist) {
      __local uint local_hist[16];
      uint l = get_local_id(0);
      if (l < 16) local_hist[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(&local_hist[data[get_global_id(0)] & 15]);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < 16) atomic_add(&hist[l], local_hist[l]);
    }