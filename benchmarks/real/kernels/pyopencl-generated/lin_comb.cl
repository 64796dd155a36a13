//CL//
        

        #define PYOPENCL_ELWISE_CONTINUE continue

        __kernel void lin_comb(float a, __global float *x__base, long x__offset, float b, __global float *y__base, long y__offset, __global float *z__base, long z__offset, long n)
        {
          int lid = get_local_id(0);
          int gsize = get_global_size(0);
          int work_group_start = get_local_size(0)*get_group_id(0);
          long i;

          __global float *x = (__global float *) ((__global char *) x__base + x__offset);
__global float *y = (__global float *) ((__global char *) y__base + y__offset);
__global float *z = (__global float *) ((__global char *) z__base + z__offset);;
          //CL//
          for (i = work_group_start + lid; i < n; i += gsize)
          {
            z[i] = a*x[i] + b*y[i];
          }
          
          ;
        }
        