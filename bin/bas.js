#!/usr/bin/env node
// Launcher only: the program lives in the compiled CLI.
import { main } from '../dist/cli.js';

main(process.argv);
