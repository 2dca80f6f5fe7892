// dynalite, in memory, on a free 127.0.0.1 port. Prints the port on its first line, and
// exits when its standard input closes (the test session ended, or died).
const dynalite = require("dynalite");

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
