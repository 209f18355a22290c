#ifndef LR_BANNED_H
#define LR_BANNED_H

/*
 * Functions labrun's code does not call, made compile errors (included last
 * by base/system.h, so every file gets it): each has a bounded or reentrant
 * replacement that says what it does. Copying and joining strings into a
 * buffer: snprintf, or asprintf when the length is not known. Splitting:
 * strtok_r. Broken-down time: gmtime_r, localtime_r and strftime. With
 * -Wformat-truncation, the compiler then checks every snprintf whose
 * result could be cut.
 */

#define LR_BANNED(func) sorry_##func##_is_banned_in_labrun_see_base_banned_h

#undef strcpy
#define strcpy(d, s) LR_BANNED(strcpy)
#undef strcat
#define strcat(d, s) LR_BANNED(strcat)
#undef strncpy
#define strncpy(d, s, n) LR_BANNED(strncpy)
#undef strncat
#define strncat(d, s, n) LR_BANNED(strncat)
#undef sprintf
#define sprintf(...) LR_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) LR_BANNED(vsprintf)
#undef gets
#define gets(s) LR_BANNED(gets)
#undef strtok
#define strtok(s, d) LR_BANNED(strtok)
#undef gmtime
#define gmtime(t) LR_BANNED(gmtime)
#undef localtime
#define localtime(t) LR_BANNED(localtime)
#undef ctime
#define ctime(t) LR_BANNED(ctime)
#undef asctime
#define asctime(t) LR_BANNED(asctime)

#endif
