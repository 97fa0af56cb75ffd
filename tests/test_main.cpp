#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    printf("kite tests: KITE_TEST_SEED=%llu\n", (unsigned long long)kite::test::seed());
    return RUN_ALL_TESTS();
}
