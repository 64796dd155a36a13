// Comments are white space before directives are read: at the end of a
// #define, inside one, across lines, and in #if, #ifdef and #include lines.
#define N 4 // comment
#define M /* a */ 5 /* b */ + /* c */ 1 /* d */
#define K 6 /* a comment
               spanning lines */ + 7
#define /* name next */ P(x) /* body */ x
#if N == 4 // trailing
int n_is_4;
#endif // after endif
#ifdef /* c */ N /* c */
int n_defined;
#endif
#if /* multi
       line */ M == 6
int m_is_6;
#endif
/**/#/**/define/**/Q/**/8
o[0] = N; o[1] = M; o[2] = K; o[3] = P(9); o[4] = Q;
#include /* which */ "vers2.h" // that one
int a = 1 /* in text */ + 2;
