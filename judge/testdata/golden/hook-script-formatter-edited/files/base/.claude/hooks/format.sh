#!/bin/sh
npx prettier --write "$(jq -r .tool_input.file_path)"
