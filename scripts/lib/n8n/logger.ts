/** How the install and run helpers report progress. */
export type Logger = (message: string) => void;
export const defaultLogger: Logger = (m) => process.stdout.write(`${m}\n`);
