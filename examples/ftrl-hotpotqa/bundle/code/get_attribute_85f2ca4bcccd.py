ANSWERS = {"step 1.2 of \"Are Giuseppe Verdi and Ambroise Thomas both Opera composers ?\"":"yes"}

def get_attribute_85f2ca4bcccd(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
