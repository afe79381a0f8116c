v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7] row_newbcast:1
v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:1
v_mov_b32_dpp v0, v1 row_newbcast:1
