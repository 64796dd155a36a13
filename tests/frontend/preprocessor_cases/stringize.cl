// The # operator: quotes and backslashes inside string and character
// literals are escaped, white space becomes one space, none at the ends.
#define str(x) #x
#define xstr(x) str(x)
str( a  "b\"c\\" 'd' '\'' \ e  )
str(  ) str(a
b) str(  leading and trailing  )
str("\n") str('"') str(L"wide") str(/* comment */ x /* another */ y)
str(a+b) str(a + b) str( (a , b) ) str(#) str(##) str(x ## y)
xstr(__LINE__) xstr(str(1)) str(str(1))
#define ONE 1
str(ONE) xstr(ONE)
