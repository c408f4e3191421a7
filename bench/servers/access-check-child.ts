// Runs the access benchmark in a fresh process (with --expose-gc) and prints its JSON.
import { benchAccessCheck } from '../access-check.js';

process.stdout.write(`${JSON.stringify(benchAccessCheck())}\n`);
