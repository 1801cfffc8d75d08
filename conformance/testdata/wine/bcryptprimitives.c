/* A bcryptprimitives.dll for Wine 8, which ships none. Go >= 1.24's Windows
 * runtime loads it from system32 before main and resolves ProcessPrng
 * (runtime.loadOptionalSyscalls; crypto/rand reads through it later), so a
 * Go program dies with "bcryptprimitives.dll not found" without it.
 * ProcessPrng here fills the buffer from advapi32's RtlGenRandom
 * (SystemFunction036), which Wine 8 has. Built by wine_test.go:
 *   x86_64-w64-mingw32-gcc -O2 -shared -s -o bcryptprimitives.dll \
 *     bcryptprimitives.c bcryptprimitives.def -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
    const SIZE_T chunk = 1u << 30; /* RtlGenRandom takes a ULONG length */
    while (size > 0) {
        ULONG n = (ULONG)(size < chunk ? size : chunk);
        if (!SystemFunction036(data, n))
            return FALSE; /* Go treats FALSE as fatal; Windows' never fails */
        data += n;
        size -= n;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance;
    (void)reason;
    (void)reserved;
    return TRUE;
}
