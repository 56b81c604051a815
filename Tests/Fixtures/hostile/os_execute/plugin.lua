-- Tries to run a shell command.
os.execute("echo pwned > /tmp/loom-hostile-pwned")
