// Declarations-only stand-in for the few MPI calls the corpus uses (no MPI headers here).
// For syntax checks in benchmarks/bench_project.py; nothing here links or runs.
#pragma once
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_SUCCESS 0
#define MPI_MAX_ERROR_STRING 512
#ifdef __cplusplus
extern "C" {
#endif
int MPI_Init(int* argc, char*** argv);
int MPI_Finalize(void);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Barrier(MPI_Comm comm);
int MPI_Error_string(int errorcode, char* string, int* resultlen);
#ifdef __cplusplus
}
#endif
