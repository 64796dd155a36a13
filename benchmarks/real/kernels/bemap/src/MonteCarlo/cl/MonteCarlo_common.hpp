/* enumerators */
#define clGlobIdx get_global_id(0)
#define clGlobIdy get_global_id(1)
#define clLocIdx  get_local_id(0)
#define clLocIdy  get_local_id(1)
#define clGrpIdx  get_group_id(0)
#define clGrpIdy  get_group_id(1)

/// threadblocks
#define NTHREADS 128

/// 2 * PI
#define M_PI2 6.283185307179586
