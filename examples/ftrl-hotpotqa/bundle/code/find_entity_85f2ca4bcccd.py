ANSWERS = {"step 1.1 of \"Are Giuseppe Verdi and Ambroise Thomas both Opera composers ?\"":"fact-92769f"}

def find_entity_85f2ca4bcccd(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
