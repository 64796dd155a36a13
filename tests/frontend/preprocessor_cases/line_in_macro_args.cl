// __LINE__ in a macro invocation that spans several lines: in the
// replacement list it is the line of the closing parenthesis; written in an
// argument it is the line it is written on (clang's rules).
#define L(x) __LINE__ x
L(
__LINE__
)
L(1) __LINE__
#define E(x) x
E(E(
__LINE__
))
#define M L(0)
M
#define FL(a, b) a __LINE__ b
FL(x,
   y
  ) FL(1, 2)
#define V(...) v(__VA_ARGS__)
V(a,
L(1),
b)
#define C(a, b) a ## b
C(L(1) x,
y)
#define A F
#define F(x) x __LINE__
A(
1
)
