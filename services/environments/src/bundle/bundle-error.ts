// A bundle that cannot be read or written: the message names the file and what is wrong with it.

export class BundleError extends Error {
  /** The bundle file concerned (relative to the bundle directory), when there is one. */
  readonly file: string | undefined;

  constructor(message: string, file?: string) {
    super(message);
    this.name = "BundleError";
    this.file = file;
  }
}
