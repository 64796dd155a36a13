// C99 6.10.3.4 EXAMPLE, and the classic recursion cases: a macro is not
// expanded again inside its own expansion, even after it leaves it.
#define f(a) a*g
#define g(a) f(a)
f(2)(9)
#define AA BB
#define BB AA
AA BB
#define self self + 1
self
#define lparen (
#define F(x) [x]
F lparen 1)
#define G F
G(G(1))
#define NIL(x) x
#define G_0(arg) NIL(G_1)(arg)
#define G_1(arg) NIL(arg)
G_0(42)
#define foo() bar
foo()baz
#define obj(x) x obj
obj(obj)(1)
