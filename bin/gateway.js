#!/usr/bin/env node
import { run } from "../dist/cli/index.js";

run(process.argv);
