#include "csmith.h"
static int32_t g_3 = 0x2CL;
static volatile uint32_t g_9 = 40UL;
static int16_t g_17 = 1L;
static int32_t func_1(void);
static int32_t func_1(void)
{
    int32_t l_2 = 9L;
    g_3 = safe_add_func_int32_t_s_s(safe_mul_func_int16_t_s_s(g_17, l_2), (g_9 % 7));
    return g_3;
}
int main (int argc, char* argv[])
{
    int print_hash_value = 0;
    platform_main_begin();
    crc32_gentab();
    func_1();
    transparent_crc(g_3, "g_3", print_hash_value);
    transparent_crc(g_9, "g_9", print_hash_value);
    platform_main_end(crc32_context ^ 0xFFFFFFFFUL, print_hash_value);
    return 0;
}
