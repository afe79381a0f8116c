#include <cub/cub.cuh>
int f(){ return cub::Difference()(3,1); }
