// Input in one of FTRL's formats that cannot be read: the message names the file, the line and the field.

export class FtrlFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FtrlFormatError";
  }
}
