import { qrFileName, qrPath, SHARING_TEXT } from "../lib/sharing";
import { notify } from "../lib/toast";

/** The PNG's side in pixels: sharp enough for print at about 8 cm. */
const PNG_SIZE = 1024;

function save(href: string, name: string) {
  const link = document.createElement("a");
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * The Share dialog's QR code (issue 16): the server draws it (`/{username}/qr.svg`, so the
 * dashboard ships no QR library); Download SVG saves that file, Download PNG draws it on a
 * canvas first.
 */
export default function ShareQr({ username, url }: { username: string; url: string }) {
  const src = qrPath(username);

  async function downloadPng() {
    try {
      const image = new Image();
      image.src = src;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = PNG_SIZE;
      canvas.height = PNG_SIZE;
      const context = canvas.getContext("2d");
      if (!context) throw new Error("no 2d context");
      context.imageSmoothingEnabled = false;
      context.drawImage(image, 0, 0, PNG_SIZE, PNG_SIZE);
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
      if (!blob) throw new Error("no PNG");
      const href = URL.createObjectURL(blob);
      save(href, qrFileName(username, "png"));
      setTimeout(() => URL.revokeObjectURL(href), 10_000);
    } catch {
      notify.error(SHARING_TEXT.pngFailed);
    }
  }

  return (
    <section
      className="mt-4 flex flex-col items-center gap-4 rounded-xl border border-slate-200 p-4 sm:flex-row"
      aria-labelledby="share-qr-heading"
    >
      <img
        src={src}
        alt={`QR code for ${url}`}
        width={144}
        height={144}
        className="size-36 shrink-0 rounded-lg bg-white"
      />
      <div className="min-w-0 text-center sm:text-left">
        <h3 id="share-qr-heading" className="font-semibold text-slate-900">
          {SHARING_TEXT.qrHeading}
        </h3>
        <p className="mt-1 text-sm text-slate-700">{SHARING_TEXT.qrHint}</p>
        <div className="mt-3 flex flex-wrap justify-center gap-2 sm:justify-start">
          <a href={src} download={qrFileName(username, "svg")} className="btn btn-outline btn-sm">
            {SHARING_TEXT.downloadSvg}
          </a>
          <button type="button" className="btn btn-outline btn-sm" onClick={() => void downloadPng()}>
            {SHARING_TEXT.downloadPng}
          </button>
        </div>
      </div>
    </section>
  );
}
