// __VA_ARGS__, empty variable arguments, GNU ", ## __VA_ARGS__" and named
// variadic parameters, __VA_OPT__.
#define H(...) h(__VA_ARGS__)
H() H(,) H( a , b ) H((a, b), c)
#define F(a, ...) f(a, __VA_ARGS__)
F(1) F(1,) F(1, 2, 3) F(, 2)
#define G(fmt, ...) g(fmt, ## __VA_ARGS__)
#define X 9
G(1) G(1,X) G(1,) G() G(1, 2, 3)
#define G2(...) g2(0, ## __VA_ARGS__)
G2() G2(,) G2(a)
#define G4(x, args...) g4(x, ## args)
G4(1) G4(1,) G4(1,2)
#define O(a, ...) o(a __VA_OPT__(- a ## __VA_ARGS__ -) end)
#define EMPTY
O(1) O(1,2) O(1,) O(,) O(1, EMPTY)
#define S(...) #__VA_OPT__(x y)
S() S(1)
#define COUNT(...) COUNT_(__VA_ARGS__, 3, 2, 1, 0)
#define COUNT_(a, b, c, n, ...) n
COUNT(x) COUNT(x, y) COUNT(x, y, z)
