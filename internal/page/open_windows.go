package page

// oNonblock is 0 on Windows: opening a named pipe path never blocks there.
const oNonblock = 0
