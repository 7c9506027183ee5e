// Subcommands of the tbprof executable; each lives in cli/<name>_command.cc.
#pragma once

namespace tbprof::cli {

using CommandFn = int (*)(int argc, char** argv);

struct Command {
  const char* name;
  const char* summary;
  CommandFn run;
};

int InspectCommand(int argc, char** argv);
int ConvertCommand(int argc, char** argv);
int ServeCommand(int argc, char** argv);
int SynthCommand(int argc, char** argv);
int HarnessCommand(int argc, char** argv);
int CaptureCommand(int argc, char** argv);
int CompareCommand(int argc, char** argv);
int TfprofCommand(int argc, char** argv);
int SummarizeCommand(int argc, char** argv);

}  // namespace tbprof::cli
