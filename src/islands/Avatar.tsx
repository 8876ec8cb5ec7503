import { avatarInitial } from "../lib/format";

interface Props {
  user: { username?: string | null; email?: string | null; profileImageUrl?: string | null } | null;
  size?: "sm" | "md" | "lg" | "xl";
  className?: string;
}

const SIZES = { sm: "size-8 text-sm", md: "size-10 text-base", lg: "size-16 text-2xl", xl: "size-24 text-4xl" };

/** The profile image, falling back to the first letter of the username, then of the e-mail, then 'U'. */
export default function Avatar({ user, size = "md", className = "" }: Props) {
  const box = `${SIZES[size]} shrink-0 overflow-hidden rounded-full ${className}`;
  if (user?.profileImageUrl) {
    return <img src={user.profileImageUrl} alt="" className={`${box} object-cover`} width={96} height={96} />;
  }
  return (
    <span
      aria-hidden="true"
      className={`${box} inline-flex items-center justify-center bg-brand-100 font-semibold text-brand-800`}
    >
      {avatarInitial(user)}
    </span>
  );
}
