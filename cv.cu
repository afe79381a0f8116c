__global__ void k(unsigned* o, unsigned long long* q, float x){ o[0]=__float2uint_rd(x); o[1]=__float2uint_rd(-5.0f); o[2]=__float2uint_rd(5e10f); q[0]=__float2ull_rd(x);}
