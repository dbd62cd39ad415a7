// The embedded stack's API, the one place the soak reaches into tools/stack: it must run the stack in
// its own process (to kill -9 and SIGSTOP members by pid and refuse their restarts), which `npm start`
// as a child process would not allow. A dev tool driving a dev tool; nothing in production imports it.
// eslint-disable-next-line @nx/enforce-module-boundaries -- see above
export * from '@sandbox/stack/embedded';
