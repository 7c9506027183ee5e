// `tbprof serve` started as a child process, as the soak benches and the
// server's process tests run it: its stdout piped back, its port read from
// the line it prints at start-up. Header-only, so the tests use it too.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace tbprof {

struct ServeChild {
  pid_t pid = -1;
  FILE* out = nullptr;  // the child's stdout; the caller closes it
  bool started = false;  // it printed its start-up line
  int port = 0;
};

// Runs `args` (args[0] is the binary) in a child process; `in_child` (when
// set) runs in the child before the exec (redirections, limits).
inline ServeChild StartServeChild(std::vector<std::string> args, const std::function<void()>& in_child = {}) {
  ServeChild child;
  int out_pipe[2];
  if (pipe(out_pipe) != 0) return child;
  child.pid = fork();
  if (child.pid == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    if (in_child) in_child();
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  child.out = fdopen(out_pipe[0], "r");
  char line[1024] = {0};
  if (child.out == nullptr || fgets(line, sizeof line, child.out) == nullptr) return child;
  child.started = true;
  const char* at = std::strstr(line, "http://127.0.0.1:");
  child.port = at ? std::atoi(at + 17) : 0;
  return child;
}

}  // namespace tbprof
