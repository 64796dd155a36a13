// C99 6.10.3.5 EXAMPLE 6: invalid redefinitions (clang warns, the last one wins).
#define OBJ_LIKE (1-1)
#define FUNC_LIKE(a) ( a )
#define OBJ_LIKE (0) // different token sequence
#define OBJ_LIKE (1 - 1) // different white space
#define FUNC_LIKE(b) ( a ) // different parameter usage
#define FUNC_LIKE(b) ( b ) // different parameter spelling
OBJ_LIKE FUNC_LIKE(3)
