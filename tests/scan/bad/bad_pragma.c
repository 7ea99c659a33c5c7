/* test_scan: malformed pragmas, each reported at its position. */
#pragma ccplan plam(x, "x.yaml")
#pragma ccplan plan(, "x.yaml")
#pragma ccplan plan(x)
#pragma ccplan plan(x, x.yaml)
#pragma ccplan plan(x, "x.yaml"
#pragma ccplan
#pragma ccplan plan(x, "x.yaml") extra
#pragma ccplan plan(x, "")
#pragma ccplan plan(x, L"x.yaml")
#pragma other pragmas are left alone
int bad_pragma_unused;
