echo b
