// `defined` produced by a macro expansion inside #if is evaluated (clang
// warns that this is undefined behaviour, and so do we).
#define X
#define D defined(X)
#if D
int d_is_true;
#endif
#define IS_DEFINED(m) defined(m)
#if !IS_DEFINED(Y)
int y_not_defined;
#endif
