/* test_scan: one name, two files. */
#pragma ccplan plan(twice, "../data/gather64.yaml")
#pragma ccplan plan(twice, "../data/scatter16.yaml")
#pragma ccplan plan(once, "../data/gather64.yaml")
#pragma ccplan plan(once, "../bad/../data/gather64.yaml")
int conflict_unused;
