// Declarations-only stand-in for the OpenMP runtime calls the corpus uses (clang-19 here has
// no omp.h). For syntax checks in benchmarks/bench_project.py; nothing here links or runs.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
int omp_get_num_procs(void);
int omp_get_max_threads(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
void omp_set_num_threads(int n);
double omp_get_wtime(void);
#ifdef __cplusplus
}
#endif
