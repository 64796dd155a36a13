// Black-Scholes European option pricing (NVIDIA SDK style) with the
// polynomial approximation of the cumulative normal distribution.
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

float cnd(float d)
{
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float c = RSQRT2PI * exp(-0.5f * d * d) *
              (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0 ? 1.0f - c : c;
}

__kernel void black_scholes(__global float *call, __global float *put, __global const float *S,
                            __global const float *X, __global const float *T, const float R, const float V,
                            const unsigned int n)
{
    for (unsigned int i = get_global_id(0); i < n; i += get_global_size(0)) {
        float s = S[i], x = X[i], t = T[i];
        float sqrt_t = sqrt(t);
        float d1 = (log(s / x) + (R + 0.5f * V * V) * t) / (V * sqrt_t);
        float d2 = d1 - V * sqrt_t;
        float cnd1 = cnd(d1), cnd2 = cnd(d2);
        float exp_rt = exp(-R * t);
        call[i] = s * cnd1 - x * exp_rt * cnd2;
        put[i] = x * exp_rt * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}
