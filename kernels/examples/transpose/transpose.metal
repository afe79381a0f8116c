// Body of a Metal transpose kernel for mx.fast.metal_kernel: input a (rows x cols), output t.
// The tile lives in threadgroup memory (Metal's shared memory); TILE + 1 padding keeps the
// column read free of bank conflicts.
constexpr uint TILE = 32;
constexpr uint ROWS = 8;
threadgroup float tile[TILE][TILE + 1];
uint rows = a_shape[0], cols = a_shape[1];
uint2 g = threadgroup_position_in_grid.xy;
uint2 lt = thread_position_in_threadgroup.xy;
uint x = g.x * TILE + lt.x, y = g.y * TILE + lt.y;
for (uint j = 0; j < TILE; j += ROWS)
  if (x < cols && y + j < rows) tile[lt.y + j][lt.x] = a[(y + j) * cols + x];
threadgroup_barrier(mem_flags::mem_threadgroup);
x = g.y * TILE + lt.x;
y = g.x * TILE + lt.y;
for (uint j = 0; j < TILE; j += ROWS)
  if (x < rows && y + j < cols) t[(y + j) * rows + x] = tile[lt.x][lt.y + j];
